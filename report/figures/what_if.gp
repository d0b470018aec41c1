# dtbench what-if: scaling efficiency per method against ranks, one panel per link rate.
# data: method,ranks,gbit,iteration_s,efficiency; rates: the link rates (Gbit/s); validated: the
# most ranks the model was checked against a measurement (0: none), past which lines are dashed;
# notes: the assumptions, one per line, printed under the panels.
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
  if (validated > 0) {
    set arrow 1 from validated, graph 0 to validated, graph 1 nohead dt 3 lc rgb 'gray40'
    set label 2 sprintf('measured up to %g', validated) at validated, graph 0.97 left offset 0.3, 0 font ',7'
  }
  # Up to the validated ranks solid, past them dashed (with none validated, every line dashed).
  plot for [k=1:words(methods)] data using (strcol(1) eq word(methods, k) && abs($3 - rate) < 1e-9 && $2 <= validated ? $2 : NaN):5 \
       skip 1 with linespoints lt k title word(methods, k), \
       for [k=1:words(methods)] data using (strcol(1) eq word(methods, k) && abs($3 - rate) < 1e-9 && $2 >= validated ? $2 : NaN):5 \
       skip 1 with linespoints lt k dt 2 title (validated > 0 ? '' : word(methods, k))
}
unset multiplot
