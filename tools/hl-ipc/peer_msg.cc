// SPDX-License-Identifier: MIT
#include "peer_msg.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>

namespace hlipc {

void send_msg(int sock, const Msg &m)
{
	if (send(sock, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m)) {
		perror("hl-ipc: send to the other process");
		_exit(1);
	}
}

Msg recv_msg(int sock)
{
	Msg m;
	ssize_t n = recv(sock, &m, sizeof(m), 0);
	if (n != sizeof(m)) {
		fprintf(stderr, "hl-ipc: the other process went away\n");
		_exit(1);
	}
	return m;
}

Msg request(int sock, uint32_t type, uint64_t a, uint64_t b)
{
	Msg m{};
	m.type = type;
	m.a = a;
	m.b = b;
	send_msg(sock, m);
	return recv_msg(sock);
}

void reply(int sock, int32_t status)
{
	Msg m{};
	m.type = kReply;
	m.status = status;
	send_msg(sock, m);
}

}  // namespace hlipc
