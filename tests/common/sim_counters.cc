// SPDX-License-Identifier: MIT
#include "sim_counters.h"

#include <chrono>
#include <fstream>
#include <thread>

namespace hltest {

std::map<std::string, long> sim_counters()
{
	std::map<std::string, long> m;
	std::ifstream f("/sys/kernel/debug/habanalabs_sim/stats");
	std::string name;
	long v;
	while (f >> name >> v)
		m[name] = v;
	return m;
}

std::map<std::string, long>
sim_memory_counters(const std::map<std::string, long> &all)
{
	std::map<std::string, long> mem;
	for (const char *n : {"buffer_objects", "allocations", "mappings",
			      "userptrs", "dmabufs", "dmabuf_attachments_mapped",
			      "dmabuf_vmaps"}) {
		auto it = all.find(n);
		mem[n] = it == all.end() ? 0 : it->second;
	}
	return mem;
}

bool sim_counters_return_to(const std::map<std::string, long> &want, int ms)
{
	auto deadline = std::chrono::steady_clock::now() +
			std::chrono::milliseconds(ms);
	for (;;) {
		auto now = sim_counters();
		bool same = true;
		for (auto &kv : want)
			if (now[kv.first] != kv.second)
				same = false;
		if (same)
			return true;
		if (std::chrono::steady_clock::now() > deadline)
			return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
}

std::string counters_str(const std::map<std::string, long> &m)
{
	std::string s;
	for (auto &kv : m)
		s += kv.first + "=" + std::to_string(kv.second) + " ";
	return s;
}

}  // namespace hltest
