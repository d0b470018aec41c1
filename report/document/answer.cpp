#include "report/document/answer.h"

#include <fmt/format.h>

#include <vector>

namespace dtbench {

namespace {

// One paragraph: its lead-in, where it comes from, and the section's first `most` computed
// sentences (or what measures them).
std::string paragraph(const std::map<std::string, BuiltSection>& sections, const std::string& id,
                      const std::string& lead, size_t most = 8) {
  auto it = sections.find(id);
  if (it == sections.end()) return "";
  const BuiltSection& s = it->second;
  if (s.data.table.empty()) {
    return fmt::format("**{}** These results do not measure it (measured by: {}; section {}).\n\n",
                       lead, s.spec->matrices, s.number);
  }
  std::string text = fmt::format("**{}** ", lead);
  for (size_t k = 0; k < s.data.sentences.size() && k < most; ++k) {
    text += s.data.sentences[k] + " ";
  }
  return text + fmt::format("(Section {}, `data/{}.csv`.)\n\n", s.number, id);
}

// The diagnosis's finding of one part: the first entry that names something (holds `names`, and
// not "no rank" or "no host"), else its first; and how many more the Diagnosis has.
std::string finding(const std::vector<std::string>& entries, const std::string& names) {
  if (entries.empty()) return "";
  size_t pick = 0;
  for (size_t k = 0; k < entries.size(); ++k) {
    const std::string& e = entries[k];
    if (e.find(names) != std::string::npos && e.find("no rank") == std::string::npos &&
        e.find("no host") == std::string::npos) {
      pick = k;
      break;
    }
  }
  const size_t more = entries.size() - 1;
  return entries[pick] +
         (more > 0 ? fmt::format(" ({} more in the Diagnosis.)", more) : std::string());
}

}  // namespace

std::string answer_page(const std::map<std::string, BuiltSection>& sections,
                        const Diagnosis& diagnosis) {
  std::string text =
      "What these results say, each sentence computed in the section it names (its numbers in "
      "that section's CSV under `data/`); a ranking counts only out of the noise.\n\n";
  text += paragraph(sections, "fig01_iteration_time", "The fastest method here.");
  text += paragraph(sections, "fig02_breakdown", "Where the iteration goes.");
  text += paragraph(sections, "fig06_bucket_sweep", "The bucket size.");
  text += paragraph(sections, "fig13_scaling", "More ranks.");
  text += paragraph(sections, "fig19_model", "The cost model here.", 1);
  std::vector<std::string> found;
  for (const auto& f : {finding(diagnosis.stragglers, "computed longest in"),
                        finding(diagnosis.links, "slow"), finding(diagnosis.overlap, "hidden")}) {
    if (!f.empty()) found.push_back(f);
  }
  text += "**The diagnosis** (below). ";
  if (found.empty()) {
    text += "No traced run and no link probe in these results (the `diagnosis` matrix measures "
            "them).\n\n";
  } else {
    for (const auto& f : found) text += f + " ";
    text += "\n\n";
  }
  return text;
}

}  // namespace dtbench
