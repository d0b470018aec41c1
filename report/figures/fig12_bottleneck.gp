# One slow node. data: severity,kind,method,mean_s,ci95_low_s,ci95_high_s,slowdown;
# series: kind:method pairs; slow_rank, slow_host: who was slow ("rank 3", "host 3").
load figdir.'/common.gp'
set multiplot layout 1, 2
set ylabel 'seconds per iteration'
set yrange [0:*]
set key top left
is(k, i) = strcol(2).':'.strcol(3) eq word(series, i) && strcol(2) eq k
set xlabel 'extra work on '.slow_rank.' per iteration (ms)'
if (strstrt(series, 'compute_ms') > 0) {
  plot for [i=1:words(series)] data using (is('compute_ms', i) ? $1 : NaN):4:5:6 skip 1 \
         with yerrorlines lt i title (strstrt(word(series, i), 'compute_ms:') == 1 ? word(series, i)[12:] : '')
} else { eval empty_panel('no compute bottleneck measured') }
set xlabel 'link rate of '.slow_host.' (Mbit/s)'
if (strstrt(series, 'link_mbit') > 0) {
  set logscale x 10
  plot for [i=1:words(series)] data using (is('link_mbit', i) ? $1 : NaN):4:5:6 skip 1 \
         with yerrorlines lt i title (strstrt(word(series, i), 'link_mbit:') == 1 ? word(series, i)[11:] : '')
} else { eval empty_panel('no link bottleneck measured (emulated cluster only)') }
unset multiplot
