# Test accuracy against training time (prefix_curves.csv: method,train_s,test_accuracy) and
# training loss per iteration (prefix_losses.csv: method,iteration,loss), one line per method.
load figdir.'/common.gp'
curves = prefix.'_curves.csv'
losses = prefix.'_losses.csv'
set multiplot layout 1, 2
set key bottom right font ',7'
set xlabel 'training time (s)'
set ylabel 'test accuracy (%)'
plot for [i=1:words(series)] curves using (strcol(1) eq word(series, i) ? $2 : NaN):($3 * 100) \
       skip 1 with linespoints lt i title word(series, i)
set key top right font ',7'
set xlabel 'iteration'
set ylabel 'training loss'
plot for [i=1:words(series)] losses using (strcol(1) eq word(series, i) ? $2 : NaN):3 skip 1 \
       with lines lt i title word(series, i)
unset multiplot
