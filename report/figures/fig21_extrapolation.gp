# The runs on the most ranks predicted from fewer ranks, beside every run predicted on its own.
# data: experiment,ranks,measured_s,predicted_s,error_pct,fitted_on
height = 9
load figdir.'/common.gp'
set size ratio -1
set xrange [0:*]
set yrange [0:*]
set xlabel 'measured seconds per iteration'
set ylabel 'predicted seconds per iteration'
set key top left
plot data using 3:(strcol(6) eq 'its own ranks' ? $4 : 1/0) skip 1 with points lt 1 pt 7 ps 0.5 \
       title 'fitted on its own ranks', \
     data using 3:(strcol(6) ne 'its own ranks' ? $4 : 1/0) skip 1 with points lt 2 pt 6 ps 1.4 \
       title 'fitted on fewer ranks', \
     x with lines dt 2 lc rgb 'black' title 'y = x (predicted = measured)'
