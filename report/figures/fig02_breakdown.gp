# Iteration time split into phases, stacked. data: method,data_s,forward_s,backward_s,sync_s,optimizer_s,sync_share
load figdir.'/common.gp'
set ylabel 'seconds per iteration'
set xtics rotate by 30 right
set yrange [0:*]
set style data histograms
set style histogram rowstacked
set boxwidth 0.75
set key outside right
plot data using 2:xtic(1) skip 1 lt 4 title 'data', '' using 3 skip 1 lt 1 title 'forward', \
     '' using 4 skip 1 lt 2 title 'backward', '' using 5 skip 1 lt 3 title 'exposed sync', \
     '' using 6 skip 1 lt 5 title 'optimizer'
