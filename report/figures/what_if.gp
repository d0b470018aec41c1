# dtbench what-if: scaling efficiency per method against ranks, one panel per link rate.
# data: method,ranks,gbit,iteration_s,efficiency; rates: the link rates (Gbit/s); notes: the
# assumptions, one per line, printed under the panels.
height = 13
load figdir.'/common.gp'
methods = 'gather_scatter ring_reduce allreduce bucketed fp16 powersgd topk local_sgd'
panels = words(rates)
set multiplot layout 1, panels title 'PREDICTED by the cost model, not measured' margins 0.08, 0.98, 0.42, 0.9 spacing 0.04, 0
set logscale x 2
set format x '%g'
set xtics rotate by 45 right
set yrange [0:1.05]
set xlabel 'ranks (one per host)'
set key bottom left font ',7'
do for [i=1:panels] {
  rate = word(rates, i) + 0
  set title sprintf('%g Gbit/s', rate)
  if (i == 1) { set ylabel 'scaling efficiency (compute / iteration)' } else { unset ylabel; set format y '' }
  if (i > 1) { unset key }
  if (i == panels) { set label 1 notes at screen 0.02, screen 0.34 left font ',7' }
  plot for [k=1:words(methods)] data using (strcol(1) eq word(methods, k) && abs($3 - rate) < 1e-9 ? $2 : NaN):5 \
       skip 1 with linespoints lt k title word(methods, k)
}
unset multiplot
