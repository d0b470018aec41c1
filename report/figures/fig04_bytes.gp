# Payload per rank per iteration, one bar per rank within each method.
# prefix_plot.csv: method,index,rank,payload_MB
load figdir.'/common.gp'
set offsets 0.6, 0.6, 0, 0
bars = prefix.'_plot.csv'
set ylabel 'MB sent + received per iteration'
set xtics rotate by 30 right
set yrange [0:*]
set boxwidth 0.2
set key top left
plot bars using ($2 + ($3 - 1.5) * 0.2):4:($3 + 1) skip 1 with boxes lc variable, \
     bars using 2:(0):xtic(1) skip 1 with points ps 0, \
     for [r=0:3] keyentry with boxes lt r + 1 title sprintf('rank %d', r)
