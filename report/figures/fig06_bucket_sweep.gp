# bucketed: time and exposed sync vs bucket size, per backend; whiskers low_s..high_s, the
# interval a ranking is judged by.
# data: bucket_MB,backend,median_s,ci95_low_s,ci95_high_s,sync_s,payload_MB,low_s,high_s
load figdir.'/common.gp'
set logscale x 2
set xlabel 'bucket size (MB)'
set ylabel 'seconds per iteration'
set yrange [0:*]
set key top right
plot for [i=1:words(series)] data using (strcol(2) eq word(series, i) ? $1 : NaN):3:8:9 skip 1 \
       with yerrorlines lt i title word(series, i).': iteration', \
     for [i=1:words(series)] data using (strcol(2) eq word(series, i) ? $1 : NaN):6 skip 1 \
       with linespoints lt i dt 2 title word(series, i).': exposed sync'
