#pragma once
// The communication-efficient strategies (docs/compression.md), one file each. All but local
// SGD are hooks on the bucketed engine's buckets (bucket_hook.h): fp16, powersgd and topk send
// less, hierarchical sends the same sum over fewer links between hosts.
#include <memory>

#include "sync/bucket_hook.h"
#include "sync/grad_sync.h"

namespace dtbench {

std::unique_ptr<BucketHook> make_fp16_hook(const SyncOptions& options);
std::unique_ptr<BucketHook> make_powersgd_hook(const SyncOptions& options);
std::unique_ptr<BucketHook> make_topk_hook(const SyncOptions& options);
std::unique_ptr<BucketHook> make_hierarchical_hook(const SyncOptions& options);
std::unique_ptr<GradSync> make_local_sgd_sync(const SyncOptions& options);

// The hook of the hooked method called name, as its strategy uses it (bench_collectives times
// the lossy ones alone). UserError for a method that is not a hook.
std::unique_ptr<BucketHook> make_bucket_hook(const std::string& name, const SyncOptions& options);

}  // namespace dtbench
