#pragma once
// When an experiment has repeated enough (`dtbench run --until-within`): the 95% Student-t
// interval of the mean, over its repetitions, of each repetition's mean iteration time over
// iterations 1..39 (repetitions of a run are independent; Kalibera and Jones, "Rigorous
// benchmarking in reasonable time"), against a half-width relative to that mean. Written as
// OUT/experiments/<group>/<name>/interval.json after every round: what the repetitions gave, the
// interval, whether it reached the target and the seconds the repetitions took.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dtbench {

struct RepeatedInterval {
  std::vector<double> values_s;  // each successful repetition's mean iteration time
  double mean_s = 0, low_s = 0, high_s = 0;
  double half_width = 0;  // (high - low) / 2 / mean; infinite below two values
  double seconds = 0;     // the repetitions' wall time, failed and noisy attempts included
  int failed = 0;         // repetitions that failed or timed out
};

// The interval of these repetitions' values (their mean iteration times).
RepeatedInterval interval_of_values(std::vector<double> values_s);

// The interval of an experiment's repetitions, from its directory's rep-<k>/ (result.json and
// status.json; a repetition without a result counts as failed when its status says so).
RepeatedInterval interval_of(const std::string& experiment_dir);

// Whether it is tight enough: at least min_repetitions values and a half-width of at most
// `within` (a share of the mean).
bool tight(const RepeatedInterval& r, double within, int min_repetitions);

// Whether r's interval overlaps none of the others' (each with two values or more): an
// experiment told apart from every one it is compared with (its group's) needs no more
// repetitions to rank. False without others or with fewer than two values of r.
bool separated(const RepeatedInterval& r, const std::vector<RepeatedInterval>& others);

// interval.json's content; `apart`: closed by separated().
nlohmann::json interval_json(const RepeatedInterval& r, double within, int max_repeat,
                             bool apart = false);

// "+-2.1% after 4 repetitions"; "+-inf" with fewer than two.
std::string interval_text(const RepeatedInterval& r);

}  // namespace dtbench
