/* A WAN link for benchmarks, in user space: holds every packet an iptables NFQUEUE rule hands it for a one-way
 * delay, after a rate limit, then lets it go (the kernel of this machine has no netem qdisc).
 *
 * usage: wan-delay DELAY_MS MBIT QUEUE_UP QUEUE_DOWN
 *   Packets of queue QUEUE_UP (client to server) and QUEUE_DOWN (server to client) are two directions of a
 *   full-duplex link: each direction sends one packet at a time at MBIT megabits per second (a packet leaves
 *   once the ones before it in its direction have been sent; its IPv4 total length counts), and each packet is
 *   accepted DELAY_MS milliseconds after it was sent. So a round trip costs 2 × DELAY_MS, and TCP's handshake,
 *   slow start and ACK clock meet the delay as on a real link. Packets are taken whole (NFQA_CFG_F_GSO: a
 *   super-packet of several segments is one unit; TCP's window still counts segments of the MSS).
 * Prints "ready" once bound; stops on SIGTERM/SIGINT, then prints what it held (packets, bytes, most queued).
 * Built by scripts/bench --wan: cc -O2 -o wan-delay wan-delay.c -lnetfilter_queue */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CAPACITY (1 << 18)

struct held { uint32_t id; uint64_t due_ns; };
struct direction {
    struct nfq_q_handle *queue;
    struct held ring[CAPACITY];
    size_t head, count, most;
    uint64_t link_free_ns, packets, bytes;
};

static struct direction directions[2];
static uint64_t delay_ns;
static double ns_per_byte;
static volatile sig_atomic_t stopping;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int received(struct nfq_q_handle *queue, struct nfgenmsg *message, struct nfq_data *data, void *context) {
    (void)message;
    struct direction *d = context;
    struct nfqnl_msg_packet_hdr *header = nfq_get_msg_packet_hdr(data);
    if (!header) return 0;
    uint32_t id = ntohl(header->packet_id);
    unsigned char *payload = NULL;
    int copied = nfq_get_payload(data, &payload);
    uint32_t length = copied >= 4 ? ((uint32_t)payload[2] << 8 | payload[3]) : (uint32_t)(copied > 0 ? copied : 0);
    if (d->count == CAPACITY) {  /* never seen: accept at once rather than lose the packet */
        nfq_set_verdict(queue, id, NF_ACCEPT, 0, NULL);
        return 0;
    }
    uint64_t now = now_ns();
    uint64_t start = d->link_free_ns > now ? d->link_free_ns : now;
    d->link_free_ns = start + (uint64_t)(length * ns_per_byte);
    struct held *slot = &d->ring[(d->head + d->count) % CAPACITY];
    slot->id = id;
    slot->due_ns = d->link_free_ns + delay_ns;
    d->count++;
    if (d->count > d->most) d->most = d->count;
    d->packets++;
    d->bytes += length;
    return 0;
}

static void stop(int signal) { (void)signal; stopping = 1; }

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: wan-delay DELAY_MS MBIT QUEUE_UP QUEUE_DOWN\n");
        return 2;
    }
    delay_ns = (uint64_t)(atof(argv[1]) * 1e6);
    ns_per_byte = 8e3 / atof(argv[2]);  /* 8 bits per byte, MBIT bits per microsecond */
    struct nfq_handle *handle = nfq_open();
    if (!handle) { perror("nfq_open"); return 1; }
    for (int i = 0; i < 2; i++) {
        struct direction *d = &directions[i];
        d->queue = nfq_create_queue(handle, (uint16_t)atoi(argv[3 + i]), received, d);
        if (!d->queue) { perror("nfq_create_queue"); return 1; }
        /* The IPv4 header is all it reads: its total length is the packet's. */
        if (nfq_set_mode(d->queue, NFQNL_COPY_PACKET, 20) < 0) { perror("nfq_set_mode"); return 1; }
        nfq_set_queue_maxlen(d->queue, CAPACITY);
        nfq_set_queue_flags(d->queue, NFQA_CFG_F_GSO, NFQA_CFG_F_GSO);
    }
    int fd = nfq_fd(handle);
    int buffer_size = 64 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buffer_size, sizeof buffer_size);
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    printf("ready\n");
    fflush(stdout);
    char buffer[65536];
    while (!stopping) {
        uint64_t now = now_ns(), next = UINT64_MAX;
        for (int i = 0; i < 2; i++) {
            struct direction *d = &directions[i];
            while (d->count && d->ring[d->head].due_ns <= now) {
                nfq_set_verdict(d->queue, d->ring[d->head].id, NF_ACCEPT, 0, NULL);
                d->head = (d->head + 1) % CAPACITY;
                d->count--;
            }
            if (d->count && d->ring[d->head].due_ns < next) next = d->ring[d->head].due_ns;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int timeout_ms = next == UINT64_MAX ? 100 : 0;
        if (next != UINT64_MAX && next > now) {
            uint64_t wait = next - now;
            if (wait > 1000000) {
                timeout_ms = (int)(wait / 1000000);
            } else {  /* under a millisecond: poll without waiting, then sleep the rest */
                if (poll(&p, 1, 0) <= 0) {
                    struct timespec t = {0, (long)wait};
                    nanosleep(&t, NULL);
                    continue;
                }
            }
        }
        if (poll(&p, 1, timeout_ms) > 0) {
            for (;;) {
                ssize_t n = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
                if (n <= 0) {
                    if (n < 0 && errno == ENOBUFS) fprintf(stderr, "wan-delay: the kernel dropped queued packets\n");
                    break;
                }
                nfq_handle_packet(handle, buffer, (int)n);
            }
        }
    }
    for (int i = 0; i < 2; i++) {
        struct direction *d = &directions[i];
        while (d->count) {
            nfq_set_verdict(d->queue, d->ring[d->head].id, NF_ACCEPT, 0, NULL);
            d->head = (d->head + 1) % CAPACITY;
            d->count--;
        }
        fprintf(stderr, "wan-delay: %s %llu packets, %llu bytes, at most %zu held\n", i ? "down" : "up",
                (unsigned long long)d->packets, (unsigned long long)d->bytes, d->most);
        nfq_destroy_queue(d->queue);
    }
    nfq_close(handle);
    return 0;
}
