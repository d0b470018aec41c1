# Accuracy and loss vs global batch. data: global_batch,iterations,mean_s,final_train_loss,test_loss,test_accuracy
load figdir.'/common.gp'
set multiplot layout 1, 2
set logscale x 2
set xlabel 'global batch'
set xtics (64, 128, 256, 512)
set ylabel 'test accuracy (%)'
plot data using 1:($6 * 100) skip 1 with linespoints lt 1
set ylabel 'loss'
set key top right
plot data using 1:5 skip 1 with linespoints lt 2 title 'test loss', \
     data using 1:4 skip 1 with linespoints lt 3 title 'last training loss'
unset multiplot
