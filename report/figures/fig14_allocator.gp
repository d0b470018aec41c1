# Page faults and iteration time per malloc setting.
# data: method,malloc,ranks,faults_per_iteration,median_s,low_s,high_s,reps
load figdir.'/common.gp'
set offsets 0.6, 0.6, 0, 0
set multiplot layout 1, 2
set xtics rotate by 30 right
set boxwidth 0.6
set yrange [0:*]
label(m, s) = m.' ('.s.')'
set ylabel 'minor page faults per iteration'
plot data using 0:4:xtic(label(strcol(1), strcol(2))) skip 1 with boxes lt 1
set ylabel 'seconds per iteration (mean of 1..39)'
plot data using 0:5:xtic(label(strcol(1), strcol(2))) skip 1 with boxes lt 2, \
     data using 0:5:6:7 skip 1 with yerrorbars lc rgb 'black' pt -1
unset multiplot
