# The cost model's iteration time against the measured one, with y = x.
# data: experiment,measured_s,predicted_s,error_pct,worst_phase,worst_phase_difference_s,
#       measured_p95_s,predicted_p95_s,p95_error_pct
height = 9
load figdir.'/common.gp'
set size ratio -1
set xrange [0:*]
set yrange [0:*]
set xlabel 'measured seconds per iteration'
set ylabel 'predicted seconds per iteration'
set key top left
plot data using 2:3 skip 1 with points lt 1 pt 7 ps 0.6 title 'experiments', \
     data using 2:3:1 skip 1 with labels left offset 0.6,0 font ',6', \
     x with lines dt 2 lc rgb 'black' title 'y = x (predicted = measured)'
