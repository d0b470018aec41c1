# Iteration time per sync method, coloured by backend (PyTorch's Python DDP on its own colour):
# the median over repetitions, whiskers the range over them (one repetition: the 95% CI, widened
# to how far apart runs of one configuration fell).
# data: method,backend,reps,median_s,low_s,high_s,...
load figdir.'/common.gp'
set offsets 0.6, 0.6, 0, 0
set ylabel 'seconds per iteration (mean of 1..39)'
set xtics rotate by 30 right
set yrange [0:*]
set boxwidth 0.75
set key top left
colour(method, backend) = method eq 'python_ddp' ? 3 : backend_index(backend)
plot data using 0:4:(colour(strcol(1), strcol(2))):xtic(strcol(2) eq 'mpi' ? strcol(1) : strcol(1).'/'.strcol(2)) skip 1 with boxes lc variable, \
     data using 0:4:5:6 skip 1 with yerrorbars lc rgb 'black' pt -1, \
     keyentry with boxes lt 1 title 'MPI', keyentry with boxes lt 2 title 'Gloo', \
     keyentry with boxes lt 3 title 'Python DDP (Gloo)'
