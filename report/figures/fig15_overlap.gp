# The overlap engines on one network: the same table and bars as figure 1 (method, backend,
# reps, median_s, low_s, high_s, ...), from the matrix group "overlap".
load figdir.'/fig01_iteration_time.gp'
