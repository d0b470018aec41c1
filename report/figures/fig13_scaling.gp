# Speedup vs ranks. data: method,ranks,mean_s,speedup,efficiency
load figdir.'/common.gp'
set xlabel 'ranks'
set ylabel 'speedup over one process'
set xtics 1
set xrange [0.8:*]
set yrange [0:*]
set key top left
plot x with lines dt 2 lc rgb 'black' title 'ideal', \
     for [i=1:words(series)] data using (strcol(1) eq word(series, i) ? $2 : NaN):4 skip 1 \
       with linespoints lt i title word(series, i)
