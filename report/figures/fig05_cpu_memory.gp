# CPU utilisation and peak memory per method. data: method,cpu_utilisation,peak_rss_MB
load figdir.'/common.gp'
set offsets 0.6, 0.6, 0, 0
set multiplot layout 1, 2
set xtics rotate by 30 right
set boxwidth 0.75
set yrange [0:*]
set ylabel 'CPU utilisation (1 = all cores busy)'
plot data using 0:2:xtic(1) skip 1 with boxes lt 1
set ylabel 'peak resident memory per rank (MB)'
plot data using 0:3:xtic(1) skip 1 with boxes lt 2
unset multiplot
