# Iteration time (bars, whiskers) and payload per rank and iteration (log scale) per method.
# data: method,reps,median_s,low_s,high_s,payload_MB,time_vs_fp32,payload_vs_fp32,host_sent_MB,
#       host_vs_fp32
load figdir.'/common.gp'
set multiplot layout 1, 2
set offsets 0.6, 0.6, 0, 0
set xtics rotate by 30 right
set boxwidth 0.75
set ylabel 'seconds per iteration'
set yrange [0:*]
plot data using 0:3:xtic(1) skip 1 with boxes lt 1, \
     data using 0:3:4:5 skip 1 with yerrorbars lc rgb 'black' pt -1
set ylabel 'payload sent per rank and iteration (MB)'
set logscale y
set yrange [*:*]
plot data using 0:6:xtic(1) skip 1 with boxes lt 2
unset multiplot
