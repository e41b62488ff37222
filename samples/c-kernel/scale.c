/*
 * A kernel in C for <compute command="bin/scale" in="a, factor" out="a, total"/>: multiplies the
 * double[] a by factor in place and returns a (the same region) and its sum. It speaks the kernel
 * protocol of docs/kernel-protocol.md directly: frames of a 4-byte little-endian length and UTF-8
 * text on the Unix socket $MPFL_KERNEL_SOCKET; arrays in the shared-memory file $MPFL_KERNEL_SHM.
 *
 *   cc -O2 -o bin/scale scale.c
 */
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int control;

/* waits in poll for input before each read: a read blocked on the socket would also be woken, for
   nothing, each time the rank reads an answer (docs/kernel-protocol.md, "Waiting") */
static int read_exact(void *buffer, size_t n) {
    char *p = buffer;
    struct pollfd readable = {.fd = control, .events = POLLIN};
    while (n > 0) {
        if (poll(&readable, 1, -1) < 0) {
            return -1;
        }
        ssize_t got = read(control, p, n);
        if (got <= 0) {
            return -1;
        }
        p += got;
        n -= (size_t) got;
    }
    return 0;
}

static char *receive(void) {
    uint8_t h[4];
    if (read_exact(h, 4) != 0) {
        return NULL;
    }
    uint32_t length = h[0] | h[1] << 8 | h[2] << 16 | (uint32_t) h[3] << 24;
    char *text = malloc(length + 1);
    if (text == NULL || read_exact(text, length) != 0) {
        exit(2);
    }
    text[length] = '\0';
    return text;
}

static void send_text(const char *text) {
    uint32_t length = (uint32_t) strlen(text);
    uint8_t h[4] = {length & 0xff, length >> 8 & 0xff, length >> 16 & 0xff, length >> 24 & 0xff};
    if (write(control, h, 4) != 4 || write(control, text, length) != (ssize_t) length) {
        exit(2);
    }
}

int main(void) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, getenv("MPFL_KERNEL_SOCKET"), sizeof address.sun_path - 1);
    control = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(control, (struct sockaddr *) &address, sizeof address) != 0) {
        perror("connect");
        return 1;
    }
    int shm = open(getenv("MPFL_KERNEL_SHM"), O_RDWR);
    send_text("ready 1");
    char *request;
    while ((request = receive()) != NULL) {
        if (strcmp(request, "exit") == 0) {
            break;
        }
        /* call TARGET FREE, then lines "in NAME TYPE PAYLOAD" and "out NAME TYPE" */
        long offset = -1, count = 0;
        double factor = 1;
        for (char *line = strtok(request, "\n"); line != NULL; line = strtok(NULL, "\n")) {
            char name[64], type[16];
            long o, c;
            double d;
            if (sscanf(line, "in %63s double[] %ld %ld", name, &o, &c) == 3 && strcmp(name, "a") == 0) {
                offset = o;
                count = c;
            } else if (sscanf(line, "in %63s %15s %lf", name, type, &d) == 3 && strcmp(name, "factor") == 0) {
                factor = d;
            }
        }
        free(request);
        if (offset < 0) {
            send_text("error exception\nscale needs an input 'a' of type double[]");
            continue;
        }
        struct stat st;
        fstat(shm, &st);
        char *memory = mmap(NULL, (size_t) st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
        double *a = (double *) (memory + offset), total = 0;
        for (long i = 0; i < count; i++) {
            a[i] *= factor;
            total += a[i];
        }
        munmap(memory, (size_t) st.st_size);
        printf("scaled %ld values by %g\n", count, factor); /* stdout: a log line of the rank */
        fflush(stdout);
        char answer[256];
        snprintf(answer, sizeof answer, "result\na double[] %ld %ld\ntotal double %.17g", offset, count, total);
        send_text(answer);
    }
    return 0;
}
