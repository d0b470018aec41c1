# Shared style, loaded first by every figure script. Variables set by `dtbench report`:
# data (the figure's CSV), prefix (its extra CSVs are prefix.'_<name>.csv'), series (names
# the script loops over), backends, out; a script may set height (cm) before loading this.
if (!exists("height")) height = 7.5
set terminal pdfcairo size 16cm,height*1cm font 'Helvetica,8' noenhanced
set output out
set datafile separator ','
set key noautotitle
set grid ytics lc rgb '#dddddd'
set border 3
set tics nomirror
set style fill solid 0.85 border -1
array palette[8] = ['#4472c4', '#ed7d31', '#70ad47', '#7f7f7f', '#ffc000', '#5b9bd5', '#9e480e', '#264478']
do for [i=1:8] { set linetype i lc rgb palette[i] lw 1.5 pt 7 ps 0.5 }
backend_index(b) = b eq 'gloo' ? 2 : 1
# A panel with nothing to plot says so instead of failing.
empty_panel(text) = sprintf("set label 1 '%s' at graph 0.5, graph 0.5 center; unset tics; unset border; plot [0:1][0:1] 2; unset label 1; set tics; set border 3", text)
