# The same methods on several systems. prefix_plot.csv: label,index,system,mean_s
load figdir.'/common.gp'
set offsets 0.6, 0.6, 0, 0
bars = prefix.'_plot.csv'
stats bars using 3 skip 1 nooutput
systems = STATS_max + 1
width = 0.8 / systems
set boxwidth width
set ylabel 'seconds per iteration (mean of 1..39)'
set xtics rotate by 30 right
set yrange [0:*]
set key top left
plot bars using ($2 + ($3 - (systems - 1) / 2.0) * width):4:($3 + 1) skip 1 with boxes lc variable, \
     bars using 2:(0):xtic(1) skip 1 with points ps 0, \
     for [k=1:systems] keyentry with boxes lt k title sprintf('S%d', k)
