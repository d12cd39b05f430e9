// SPDX-License-Identifier: MIT
// habanalabs_sim's live object counters (debugfs), which the VM tests
// compare before and after to find what a test leaked.
#pragma once

#include <map>
#include <string>

namespace hltest {

// Every counter, name -> count summed over the devices; empty when the
// module or debugfs is absent.
std::map<std::string, long> sim_counters();

// Of the counters all, those that track memory: buffer_objects,
// allocations, mappings, userptrs, dmabufs, dmabuf_attachments_mapped,
// dmabuf_vmaps.
std::map<std::string, long>
sim_memory_counters(const std::map<std::string, long> &all = sim_counters());

// Waits up to ms for each counter named in want to have its value there
// (releases after a process exit are deferred); returns whether they did.
bool sim_counters_return_to(const std::map<std::string, long> &want, int ms);

// "name=value " for each counter, for failure messages.
std::string counters_str(const std::map<std::string, long> &m);

}  // namespace hltest
