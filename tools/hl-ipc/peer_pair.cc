// SPDX-License-Identifier: MIT
#include "peer_pair.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "ipc_state.h"
#include "peer_msg.h"

namespace hlipc {

int start_pair(const char *tool, uint64_t max_size, Pair *p)
{
	int n = hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE);
	if (n < 2) {
		fprintf(stderr,
			"%s: needs two devices, found %d.  Load the emulated devices "
			"with 'hl-ipc load habanalabs_sim num_devices=2' (or "
			"'modprobe habanalabs_sim num_devices=2').\n",
			tool, n < 0 ? 0 : n);
		return 1;
	}
	struct hlthunk_ipc_info info;
	int rc = hlthunk_ipc_query(&info);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", tool, hlthunk_ipc_last_error());
		std::string hint = access_hint(HL_IPC_DEVICE_PATH, rc);
		if (!hint.empty())
			fprintf(stderr, "%s: %s\n", tool, hint.c_str());
		return 1;
	}

	// Host staging buffer shared by A and B: two halves, one per process
	// for the initial fill; the staged transfers use the first half.
	p->host_size = 2 * max_size;
	p->host = Mapping::map(p->host_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int sv[2];
	if (!p->host.valid() || !p->link.create() ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		fprintf(stderr, "%s: set-up: %m\n", tool);
		return 1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %m\n", tool);
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		Side b(tool, "B", 1);
		setup(b, max_size, p->host.bytes(), p->host_size);
		connect_peer(b, sv[1]);
		p->link.watch(sv[1]);
		_exit(serve(b, p->link, sv[1]));
	}
	close(sv[1]);
	p->sock = sv[0];
	p->link.watch(p->sock);
	p->b_pid = pid;
	p->a = std::make_unique<Side>(tool, "A", 0);
	setup(*p->a, max_size, p->host.bytes(), p->host_size);
	p->b = connect_peer(*p->a, p->sock);
	return 0;
}

int finish_pair(Pair *p)
{
	// B ends on kQuit without an answer; its exit closes the socket.
	Msg quit{};
	quit.type = kQuit;
	p->link.post(quit);
	int status = 0;
	while (waitpid(p->b_pid, &status, 0) < 0 && errno == EINTR)
		;
	if (p->a->channel)
		hlthunk_ipc_channel_destroy(p->a->channel);
	close(p->sock);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: process B failed\n", p->a->tool);
		return 1;
	}
	return 0;
}

}  // namespace hlipc
