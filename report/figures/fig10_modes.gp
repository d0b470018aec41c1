# Blocking vs overlap vs stale. data: mode,method,median_s,ci95_low_s,ci95_high_s,sync_s,final_loss,
# test_accuracy,low_s,high_s (median over repetitions; whiskers the interval a ranking is judged by)
load figdir.'/common.gp'
set offsets 0.6, 0.6, 0, 0
set multiplot layout 1, 2
set boxwidth 0.6
set yrange [0:*]
set ylabel 'seconds per iteration'
plot data using 0:3:xtic(1) skip 1 with boxes lt 1, data using 0:3:9:10 skip 1 with yerrorbars lc rgb 'black' pt -1
set ylabel 'test accuracy (%)'
if (evaluated eq '1') {
  plot data using 0:($8 * 100):xtic(1) skip 1 with boxes lt 3
} else { eval empty_panel('no test evaluation in these runs (eval=false)') }
unset multiplot
