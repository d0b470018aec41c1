# Mean vs sum: loss curves (prefix_curves.csv: aggregate,iteration,loss) and test accuracy
# (data: aggregate,final_loss,test_loss,test_accuracy,mean_s).
load figdir.'/common.gp'
curves = prefix.'_curves.csv'
set multiplot layout 1, 2
set xlabel 'iteration'
set ylabel 'training loss'
set key top right
plot for [i=1:words(series)] curves using (strcol(1) eq word(series, i) ? $2 : NaN):3 skip 1 \
       with lines lt i title word(series, i)
unset xlabel
set ylabel 'test accuracy (%)'
set offsets 0.6, 0.6, 0, 0
set boxwidth 0.6
set yrange [0:*]
if (evaluated eq '1') {
  plot data using 0:($4 * 100):xtic(1) skip 1 with boxes lt 3
} else { eval empty_panel('no test evaluation in these runs (eval=false)') }
unset multiplot
