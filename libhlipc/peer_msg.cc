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

Msg request(PeerLink &link, uint32_t type, uint64_t a, uint64_t b)
{
	Msg m{};
	m.type = type;
	m.a = a;
	m.b = b;
	return link.ask(m);
}

void reply(PeerLink &link, int32_t status)
{
	Msg m{};
	m.type = kReply;
	m.status = status;
	link.answer(m);
}

void send_ucx_info(int sock, const UcxInfo &info)
{
	if (send(sock, &info, sizeof(info), MSG_NOSIGNAL) != sizeof(info)) {
		perror("hl-ipc: send to the other process");
		_exit(1);
	}
}

UcxInfo recv_ucx_info(int sock)
{
	UcxInfo info;
	if (recv(sock, &info, sizeof(info), 0) != sizeof(info)) {
		fprintf(stderr, "hl-ipc: the other process went away\n");
		_exit(1);
	}
	return info;
}

}  // namespace hlipc
