# Collectives: time and bus bandwidth vs size, one column of panels per backend.
# prefix_sweep.csv: op,backend,bytes,time_us,algbw_GBps,busbw_GBps,bound_us
height = 15
load figdir.'/common.gp'
sweep = prefix.'_sweep.csv'
set multiplot layout 2, words(backends)
set logscale x 2
set format x '2^{%L}'
set format x '%.0b%B'
set xlabel 'message size (bytes)'
set key top left font ',7'
is(op, b) = strcol(1) eq op && strcol(2) eq b
do for [b in backends] {
  set logscale y 10
  set ylabel 'time per operation (us)'
  set title b.': latency'
  plot for [i=1:words(series)] sweep using (is(word(series, i), b) ? $3 : NaN):4 skip 1 \
         with linespoints lt i title word(series, i), \
       sweep using (is('allreduce', b) ? $3 : NaN):7 skip 1 with lines dt 2 lc rgb 'black' title 'allreduce bound'
}
do for [b in backends] {
  unset logscale y
  set ylabel 'bus bandwidth (GB/s)'
  set title b.': bus bandwidth'
  set key off
  plot for [i=1:words(series)] sweep using (is(word(series, i), b) ? $3 : NaN):6 skip 1 \
         with linespoints lt i
}
unset multiplot
