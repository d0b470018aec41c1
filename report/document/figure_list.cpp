#include "report/document/figures.h"
#include "report/figures/common.h"

namespace dtbench {

const std::vector<FigureSpec>& figure_registry() {
  using namespace report;
  static const std::vector<FigureSpec> registry = {
      {"fig01_iteration_time", "Iteration time per synchronisation method",
       "How long does one training iteration take with each way of synchronising gradients, "
       "over each backend?",
       "smoke, quick, standard", iteration_time},
      {"fig02_breakdown", "Where the iteration goes",
       "How is an iteration split between data, forward, backward, exposed synchronisation and "
       "the optimiser step?",
       "smoke, quick, standard", breakdown},
      {"fig03_collectives", "Collectives alone",
       "How do gather, scatter, reduce, broadcast, allreduce, allgather, reduce_scatter and the "
       "hand-written rings perform against message size?",
       "smoke, quick, standard", collectives},
      {"fig04_bytes", "Bytes moved per node",
       "What does each method send and receive, per rank and iteration?", "smoke, quick, standard",
       bytes_moved},
      {"fig05_cpu_memory", "CPU and memory",
       "How busy are the CPUs, and how much memory does each "
       "method need?",
       "smoke, quick, standard", cpu_memory},
      {"fig06_bucket_sweep", "Bucket size",
       "How does DDP-style bucketing behave as the bucket "
       "grows?",
       "smoke, quick, standard", bucket_sweep},
      {"fig07_loss_accuracy", "Loss and accuracy per method",
       "Do the methods train the same model?", "smoke, quick, standard", loss_accuracy},
      {"fig08_batch_size", "Global batch size",
       "How do accuracy and loss depend on the global "
       "batch?",
       "smoke, quick, standard", batch_size},
      {"fig09_epochs", "Epochs", "How do accuracy and loss improve with epochs?",
       "smoke, quick, standard", epochs},
      {"fig10_modes", "Blocking, overlap, stale",
       "What do overlapping communication with "
       "backward, and applying stale gradients, buy and cost?",
       "smoke, quick, standard", modes},
      {"fig11_aggregate", "Mean vs sum",
       "What happens when gradients are summed instead of "
       "averaged?",
       "smoke, quick, standard", aggregate},
      {"fig12_bottleneck", "A bottleneck node",
       "How much does one slow node (slow compute, or a "
       "slow link) slow everyone down, per method?",
       "smoke, quick, standard (link: on the emulated cluster)", bottleneck},
      {"fig13_scaling", "Scaling with the number of ranks",
       "How does the iteration time change "
       "from 1 to 2 to 4 ranks for the same global batch?",
       "smoke, quick, standard", scaling},
      {"fig14_allocator", "Memory allocator",
       "How many pages does an iteration fault in afresh, and what does that cost, with glibc's "
       "malloc defaults and with freed memory kept in the process?",
       "smoke, quick, standard", allocator},
      {"fig15_overlap", "Overlap engines on one network",
       "Does each way of overlapping communication with backward hide it, over MPI and over "
       "Gloo, on a real or emulated network?",
       "overlap (on the emulated cluster or a real one)", overlap_engines},
      {"fig16_cross_hardware", "Across systems",
       "How do the same measurements compare on "
       "different machines, or on one machine with another software stack?",
       "any matrix, on two or more systems (e.g. CI runners, Debian 12 and 13)", cross_hardware},
      {"fig17_compression", "Sending less: time and bytes",
       "Do the communication-efficient methods (fp16, PowerSGD, top-k, local SGD, hierarchical) "
       "make an "
       "iteration faster, and how many bytes do they save?",
       "quick, standard (and on the emulated cluster at 1 Gbit/s and 100 Mbit/s)",
       compression_time},
      {"fig18_compression_accuracy", "Sending less: accuracy and time to accuracy",
       "What do they cost in accuracy, and which reaches a target accuracy first?",
       "quick, standard", compression_accuracy},
      {"fig19_model", "Model vs measurement",
       "Does what each method should cost (the cost model: its algorithm's steps and bytes on the "
       "fitted link, overlapped with backward as its gradients become ready) match what it "
       "measured, and where not, in which phase?",
       "model (on the emulated cluster or a real one)", model_vs_measurement},
      {"fig20_ranks", "Each rank's pace",
       "Which rank sets the pace? Each rank's own iteration time (p50, p95, p99 over iterations "
       "1..39) per method, and the rank that is slowest.",
       "smoke, quick, standard", rank_pace},
      {"fig21_extrapolation", "The model past its fitted size",
       "Fitted on fewer ranks, does the cost model predict the runs on the most ranks here, and "
       "how far is that from the same model fitted on those ranks themselves?",
       "extrapolation (on the emulated cluster of 8 hosts)", extrapolation},
  };
  return registry;
}

}  // namespace dtbench
