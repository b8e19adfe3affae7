#ifndef IPCB_MQ_TRANSPORTS_H
#define IPCB_MQ_TRANSPORTS_H

#include "ipcbench/transport.h"

#define MQ_SYSV_OPTION_COUNT 1u
#define MQ_POSIX_OPTION_COUNT 1u

extern const ipcb_option_desc mq_sysv_options[MQ_SYSV_OPTION_COUNT];
extern const ipcb_option_desc mq_posix_options[MQ_POSIX_OPTION_COUNT];

/* Not const: the entry point fills in the kernel limits of this machine. */
extern ipcb_transport mq_sysv_transport;
extern ipcb_transport mq_posix_transport;

void mq_sysv_describe_limits(void);
void mq_posix_describe_limits(void);

#endif
