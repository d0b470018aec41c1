# Mean iteration time per sync method, coloured by backend, with the 95% CI.
# data: method,backend,n,mean_s,ci95_low_s,ci95_high_s,median_s,p95_s
load figdir.'/common.gp'
set offsets 0.6, 0.6, 0, 0
set ylabel 'seconds per iteration (mean of 1..39)'
set xtics rotate by 30 right
set yrange [0:*]
set boxwidth 0.75
set key top left
plot data using 0:4:(backend_index(strcol(2))):xtic(strcol(2) eq 'mpi' ? strcol(1) : strcol(1).'/'.strcol(2)) skip 1 with boxes lc variable, \
     data using 0:4:5:6 skip 1 with yerrorbars lc rgb 'black' pt -1, \
     keyentry with boxes lt 1 title 'MPI', keyentry with boxes lt 2 title 'Gloo'
