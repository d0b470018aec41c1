# One row of panels per model (series: the models; methods_<model>: its methods): test accuracy
# against training time (prefix_curves.csv: series,train_s,test_accuracy) and training loss per
# iteration (prefix_losses.csv: series,iteration,loss), one line per method; a line's series is
# "<model>:<method>".
height = 7.5 * words(series)
load figdir.'/common.gp'
curves = prefix.'_curves.csv'
losses = prefix.'_losses.csv'
set multiplot layout words(series), 2
do for [m = 1:words(series)] {
  model = word(series, m)
  methods = value('methods_'.model)
  set title model
  set key bottom right font ',7'
  set xlabel 'training time (s)'
  set ylabel 'test accuracy (%)'
  plot for [i=1:words(methods)] curves \
         using (strcol(1) eq model.':'.word(methods, i) ? $2 : NaN):($3 * 100) \
         skip 1 with linespoints lt i title word(methods, i)
  set key top right font ',7'
  set xlabel 'iteration'
  set ylabel 'training loss'
  plot for [i=1:words(methods)] losses \
         using (strcol(1) eq model.':'.word(methods, i) ? $2 : NaN):3 skip 1 \
         with lines lt i title word(methods, i)
}
unset multiplot
