// SPDX-License-Identifier: MIT
// Finding devices never takes them, and fork() during discovery is safe
// (in the VM, 'habanalabs_sim num_devices=2').
//
// A compute node admits one open at a time: a library that opened compute
// nodes to learn what a device is would make another process's open fail
// with EBUSY meanwhile.  The driver counts compute opens
// (HL_INFO_OPEN_STATS), so "no probe opened a compute node" is exact.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <thread>

#include "hlthunk.h"

namespace {

uint64_t compute_opens(int index)
{
	int c = hlthunk_open_control(index, nullptr);
	if (c < 0)
		return UINT64_MAX;
	struct hlthunk_open_stats_info s;
	int rc = hlthunk_get_open_stats(c, &s);
	hlthunk_close(c);
	return rc ? UINT64_MAX : s.open_counter;
}

std::string bus_of(int index)
{
	int c = hlthunk_open_control(index, nullptr);
	char bus[16] = "";
	hlthunk_get_pci_bus_id_from_fd(c, bus, sizeof(bus));
	hlthunk_close(c);
	return bus;
}

// Every call that finds or describes devices without being asked to open
// a compute node.
void probe_everything(const std::string &bus0)
{
	for (auto name : {HLTHUNK_DEVICE_DONT_CARE, HLTHUNK_DEVICE_GAUDI2,
			  HLTHUNK_DEVICE_GAUDI, HLTHUNK_DEVICE_GOYA})
		(void)hlthunk_get_device_count(name);
	// No Goya or Gaudi here: nothing may be opened to find that out.
	(void)hlthunk_open(HLTHUNK_DEVICE_GOYA, nullptr);
	(void)hlthunk_open(HLTHUNK_DEVICE_GAUDI, nullptr);
	(void)hlthunk_open_by_module_id(77);
	for (int fd : {hlthunk_open_control_by_name(HLTHUNK_DEVICE_GAUDI2, nullptr),
		       hlthunk_open_control_by_module_id(0),
		       hlthunk_open_control_by_bus_id(bus0.c_str()),
		       hlthunk_open_control(1, nullptr)})
		if (fd >= 0)
			hlthunk_close(fd);
	(void)hlthunk_get_device_index_from_pci_bus_id(bus0.c_str());
}

}  // namespace

TEST(Probe, FindingDevicesOpensNoComputeNode)
{
	uint64_t before0 = compute_opens(0), before1 = compute_opens(1);
	ASSERT_NE(before0, UINT64_MAX);
	std::string bus0 = bus_of(0);
	probe_everything(bus0);
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI2), 2);
	EXPECT_EQ(hlthunk_open(HLTHUNK_DEVICE_GOYA, nullptr), -ENODEV);
	EXPECT_EQ(compute_opens(0), before0) << "a probe opened device 0's compute node";
	EXPECT_EQ(compute_opens(1), before1) << "a probe opened device 1's compute node";
	// Asked to open a Gaudi2, the library opens exactly one compute node.
	int fd = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(compute_opens(0) + compute_opens(1), before0 + before1 + 1);
	hlthunk_close(fd);
}

// One process opens and closes device 0 again and again while another
// probes in a loop: the holder never finds its device taken.
TEST(Probe, AHolderNeverSeesEbusyWhileAnotherProcessProbes)
{
	std::string bus0 = bus_of(0);
	int pipefd[2];
	ASSERT_EQ(pipe(pipefd), 0);
	pid_t holder = fork();
	if (holder == 0) {
		close(pipefd[0]);
		int busy = 0, other = 0;
		// Closed for a moment, then opened again: a prober that
		// opened the node meanwhile would still hold it.
		for (int i = 0; i < 2000; i++) {
			int fd = open("/dev/hlsim0", O_RDWR | O_CLOEXEC);
			if (fd < 0) {
				busy += errno == EBUSY;
				other += errno != EBUSY;
			} else {
				usleep(50);
				close(fd);
			}
			usleep(50 + i % 7 * 20);
		}
		int r[2] = {busy, other};
		(void)!write(pipefd[1], r, sizeof(r));
		_exit(0);
	}
	close(pipefd[1]);
	int rounds = 0;
	int status;
	while (waitpid(holder, &status, WNOHANG) == 0) {
		probe_everything(bus0);
		rounds++;
	}
	int r[2] = {-1, -1};
	ASSERT_EQ(read(pipefd[0], r, sizeof(r)), (ssize_t)sizeof(r));
	close(pipefd[0]);
	EXPECT_GT(rounds, 0);
	EXPECT_EQ(r[0], 0) << "the holder's open got EBUSY " << r[0]
			   << " times while " << rounds << " probe rounds ran";
	EXPECT_EQ(r[1], 0);
}

// fork() while another thread is inside device discovery (libudev, under
// the library's lock): the child must find the lock free.
TEST(Fork, WhileAnotherThreadDiscoversDevices)
{
	std::atomic<bool> stop{false};
	std::atomic<long> discoveries{0};
	std::thread t([&] {
		while (!stop) {
			(void)hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE);
			discoveries++;
		}
	});
	while (discoveries < 5)
		std::this_thread::yield();
	// The other thread is in discovery most of the time, so most forks
	// happen while it holds the lock.
	int hung = 0, failed = 0;
	for (int i = 0; i < 12; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			// A deadlocked child is ended by the alarm.
			alarm(20);
			int n = hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE);
			int c = hlthunk_open_control(0, nullptr);
			_exit(n == 2 && c >= 0 ? 0 : 1);
		}
		int status;
		waitpid(pid, &status, 0);
		hung += WIFSIGNALED(status);
		failed += WIFEXITED(status) && WEXITSTATUS(status);
	}
	stop = true;
	t.join();
	EXPECT_EQ(hung, 0) << "children deadlocked in discovery";
	EXPECT_EQ(failed, 0);
}
