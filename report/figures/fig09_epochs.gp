# Accuracy and loss after each epoch. data: epoch,iterations,mean_train_loss,test_loss,test_accuracy
load figdir.'/common.gp'
set multiplot layout 1, 2
set xlabel 'epoch'
set xtics 1
set ylabel 'test accuracy (%)'
plot data using 1:($5 * 100) skip 1 with linespoints lt 1
set ylabel 'loss'
set key top right
plot data using 1:4 skip 1 with linespoints lt 2 title 'test loss', \
     data using 1:3 skip 1 with linespoints lt 3 title 'mean training loss in the epoch'
unset multiplot
