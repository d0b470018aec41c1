# Each rank's own iteration time per method: boxes its p50, whiskers from p50 to p99, a point at
# its p95; coloured by rank.
# data: method,rank,host,p50_s,p95_s,p99_s,slowest
load figdir.'/common.gp'
set offsets 0.6, 0.6, 0, 0
set ylabel 'seconds per iteration (own, 1..39)'
set xtics rotate by 30 right
set yrange [0:*]
set boxwidth 0.8
set key top left
plot data using 0:4:($2+1):xtic(strcol(1).' r'.strcol(2)) skip 1 with boxes lc variable notitle, \
     data using 0:4:4:6 skip 1 with yerrorbars lc rgb 'black' pt -1 title 'p50 to p99', \
     data using 0:5 skip 1 with points pt 7 ps 0.5 lc rgb 'black' title 'p95'
