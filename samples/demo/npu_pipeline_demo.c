/*
 * npu_pipeline_demo: multi-stream work on the software NPU through the public C API.
 *
 * Three streams share one emulated NPU core:
 *   - "prep"   (priority 4)  renders each camera frame into a pooled buffer;
 *   - "detect" (priority 1)  waits for the frame's event, then finds the bright blob in it;
 *                            a BLOCK callback on the report thread checks the result and
 *                            returns the buffer to the pool;
 *   - "train"  (priority 6, preemptible) a long background job of many segments that
 *                            the detect work interrupts at segment boundaries.
 * Segment functions log to a trace, which the demo prints as a timeline so the
 * preemptions are visible. The program checks every detection against a CPU recomputation
 * and exits non-zero on any mismatch or API error.
 *
 * Build: part of the project (target npu_pipeline_demo). Run: ./npu_pipeline_demo [frames]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/svp_acl.h"
#include "acl/svp_acl_ext.h"

#define W 320
#define H 240
#define POOL 4
#define TRAIN_SEGMENTS 24
#define TRACE_MAX 4096

#define CHECK(call)                                                                              \
    do {                                                                                         \
        svp_acl_error rc_ = (call);                                                              \
        if (rc_ != SVP_ACL_SUCCESS) {                                                            \
            fprintf(stderr, "FAILED %s -> %d: %s\n", #call, rc_, svp_acl_get_recent_err_msg()); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

typedef struct {
    int index;
    int blob_x, blob_y;      /* where the frame's bright blob was drawn */
    int found_x, found_y;    /* where "detect" found it */
    uint8_t *pixels;         /* NPU memory (svp_acl_rt_malloc) */
    int in_use;
} frame_t;

static frame_t g_pool[POOL];
static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_pool_cv = PTHREAD_COND_INITIALIZER;

static char g_trace[TRACE_MAX];
static size_t g_trace_len;
static pthread_mutex_t g_trace_mu = PTHREAD_MUTEX_INITIALIZER;

static int g_verified, g_wrong; /* touched only by the report thread until it is joined */
static pthread_mutex_t g_exit_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_exit;

static void trace(char c) {
    pthread_mutex_lock(&g_trace_mu);
    if (g_trace_len + 1 < TRACE_MAX) g_trace[g_trace_len++] = c;
    pthread_mutex_unlock(&g_trace_mu);
}

/* ---- NPU segments (run on the emulated core) ---- */

static svp_acl_error render_segment(void *user, uint32_t seg) {
    frame_t *f = (frame_t *)user;
    int y0 = (int)seg * (H / 4), y1 = y0 + H / 4, x, y;
    trace('p');
    for (y = y0; y < y1; ++y) {
        for (x = 0; x < W; ++x) {
            int dx = x - f->blob_x, dy = y - f->blob_y;
            int v = (x + y) % 64; /* background gradient */
            if (dx * dx + dy * dy < 100) v = 250;
            f->pixels[y * W + x] = (uint8_t)v;
        }
    }
    return SVP_ACL_SUCCESS;
}

static void find_blob(const uint8_t *pixels, int *out_x, int *out_y) {
    long sx = 0, sy = 0, n = 0;
    int x, y;
    for (y = 0; y < H; ++y)
        for (x = 0; x < W; ++x)
            if (pixels[y * W + x] > 200) { sx += x; sy += y; ++n; }
    *out_x = n ? (int)(sx / n) : -1;
    *out_y = n ? (int)(sy / n) : -1;
}

static svp_acl_error detect_segment(void *user, uint32_t seg) {
    frame_t *f = (frame_t *)user;
    (void)seg;
    trace('D');
    find_blob(f->pixels, &f->found_x, &f->found_y);
    return SVP_ACL_SUCCESS;
}

/* The handshake makes the preemption this demo shows independent of host thread timing:
 * the main thread submits frames only once the background job holds the core, and the
 * job's first segment ends only after the first frame was submitted. Without it a busy
 * host could let the job finish before any frame arrived, or start it after them all. */
static pthread_mutex_t g_gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate_cv = PTHREAD_COND_INITIALIZER;
static int g_train_started, g_frame_submitted;

static void gate_set(int *flag) {
    pthread_mutex_lock(&g_gate_mu);
    *flag = 1;
    pthread_cond_broadcast(&g_gate_cv);
    pthread_mutex_unlock(&g_gate_mu);
}

static void gate_wait(const int *flag) {
    pthread_mutex_lock(&g_gate_mu);
    while (!*flag) pthread_cond_wait(&g_gate_cv, &g_gate_mu);
    pthread_mutex_unlock(&g_gate_mu);
}

static volatile double g_sink;
static svp_acl_error train_segment(void *user, uint32_t seg) {
    double acc = 0.0;
    int i;
    (void)user;
    trace('t');
    if (seg == 0) {
        gate_set(&g_train_started);
        gate_wait(&g_frame_submitted);
    }
    for (i = 0; i < 400000; ++i) acc += (double)(i % 7) * 0.5; /* ~1 ms of "work" */
    g_sink = acc;
    return SVP_ACL_SUCCESS;
}

/* ---- host side ---- */

static void on_detected(void *user) { /* runs on the report thread */
    frame_t *f = (frame_t *)user;
    if (abs(f->found_x - f->blob_x) <= 1 && abs(f->found_y - f->blob_y) <= 1) {
        ++g_verified;
    } else {
        ++g_wrong;
        fprintf(stderr, "frame %d: blob at (%d,%d) but found (%d,%d)\n", f->index, f->blob_x, f->blob_y,
                f->found_x, f->found_y);
    }
    pthread_mutex_lock(&g_pool_mu);
    f->in_use = 0;
    pthread_cond_signal(&g_pool_cv);
    pthread_mutex_unlock(&g_pool_mu);
}

static frame_t *take_frame(void) {
    int i;
    pthread_mutex_lock(&g_pool_mu);
    for (;;) {
        for (i = 0; i < POOL; ++i) {
            if (!g_pool[i].in_use) {
                g_pool[i].in_use = 1;
                pthread_mutex_unlock(&g_pool_mu);
                return &g_pool[i];
            }
        }
        pthread_cond_wait(&g_pool_cv, &g_pool_mu);
    }
}

static int should_exit(void) {
    int v;
    pthread_mutex_lock(&g_exit_mu);
    v = g_exit;
    pthread_mutex_unlock(&g_exit_mu);
    return v;
}

static void *report_thread(void *arg) {
    (void)arg;
    while (!should_exit()) (void)svp_acl_rt_process_report(20);
    return NULL;
}

int main(int argc, char **argv) {
    int frames = argc > 1 ? atoi(argv[1]) : 24;
    svp_acl_rt_stream prep, detect, train;
    svp_acl_rt_event ready[POOL], first_done, last_done;
    svp_acl_ext_task_attr prep_attr = {4, 1, 0, 0, 0, 0, 0};
    svp_acl_ext_task_attr detect_attr = {1, 1, 0, 0, 0, 0, 0};
    svp_acl_ext_task_attr train_attr = {6, 0, 1, 0, 0, 0, 0};
    pthread_t tid;
    float ms = 0.0f;
    size_t i, preemptions = 0;
    int f;

    if (frames < 1) frames = 1;
    CHECK(svp_acl_init(NULL));
    CHECK(svp_acl_rt_set_device(0));
    CHECK(svp_acl_rt_create_stream(&prep));
    CHECK(svp_acl_rt_create_stream(&detect));
    CHECK(svp_acl_rt_create_stream(&train));
    for (f = 0; f < POOL; ++f) {
        CHECK(svp_acl_rt_create_event(&ready[f]));
        CHECK(svp_acl_rt_malloc((void **)&g_pool[f].pixels, W * H, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    }
    CHECK(svp_acl_rt_create_event(&first_done));
    CHECK(svp_acl_rt_create_event(&last_done));
    pthread_create(&tid, NULL, report_thread, NULL);
    CHECK(svp_acl_rt_subscribe_report((uint64_t)tid, detect));

    /* The background job goes first and would hold the core for ~24 ms. */
    CHECK(svp_acl_ext_launch_segmented_task(train_segment, NULL, TRAIN_SEGMENTS, &train_attr, train));
    gate_wait(&g_train_started);

    for (f = 0; f < frames; ++f) {
        frame_t *fr = take_frame();
        int slot = (int)(fr - g_pool);
        fr->index = f;
        fr->blob_x = 20 + (f * 37) % (W - 40);
        fr->blob_y = 20 + (f * 53) % (H - 40);
        CHECK(svp_acl_ext_launch_segmented_task(render_segment, fr, 4, &prep_attr, prep));
        CHECK(svp_acl_rt_record_event(ready[slot], prep));
        if (f == 0) gate_set(&g_frame_submitted);
        CHECK(svp_acl_rt_stream_wait_event(detect, ready[slot]));
        CHECK(svp_acl_ext_launch_segmented_task(detect_segment, fr, 1, &detect_attr, detect));
        if (f == 0) CHECK(svp_acl_rt_record_event(first_done, detect));
        CHECK(svp_acl_rt_launch_callback(on_detected, fr, SVP_ACL_CALLBACK_BLOCK, detect));
    }
    CHECK(svp_acl_rt_record_event(last_done, detect));
    CHECK(svp_acl_rt_synchronize_event(last_done));
    CHECK(svp_acl_rt_event_elapsed_time(&ms, first_done, last_done));
    CHECK(svp_acl_rt_synchronize_device());

    CHECK(svp_acl_rt_unsubscribe_report((uint64_t)tid, detect));
    pthread_mutex_lock(&g_exit_mu);
    g_exit = 1;
    pthread_mutex_unlock(&g_exit_mu);
    pthread_join(tid, NULL);

    printf("svp-acl software NPU demo: %d frames, 3 streams, 1 emulated core\n", frames);
    printf("core timeline (t = background segment, p = render quarter, D = detect):\n  ");
    for (i = 0; i < g_trace_len; ++i) {
        putchar(g_trace[i]);
        if (i > 0 && g_trace[i - 1] == 't' && g_trace[i] != 't' && i + 1 < g_trace_len) {
            size_t j;
            for (j = i; j < g_trace_len && g_trace[j] != 't'; ++j) {}
            if (j < g_trace_len) ++preemptions;
        }
        if ((i + 1) % 72 == 0) printf("\n  ");
    }
    printf("\nbackground job interrupted at segment boundaries: %zu times\n", preemptions);
    printf("detections verified: %d / %d (wrong: %d)\n", g_verified, frames, g_wrong);
    printf("first -> last detection: %.3f ms (event timestamps)\n", ms);

    for (f = 0; f < POOL; ++f) {
        CHECK(svp_acl_rt_destroy_event(ready[f]));
        CHECK(svp_acl_rt_free(g_pool[f].pixels));
    }
    CHECK(svp_acl_rt_destroy_event(first_done));
    CHECK(svp_acl_rt_destroy_event(last_done));
    CHECK(svp_acl_rt_destroy_stream(prep));
    CHECK(svp_acl_rt_destroy_stream(detect));
    CHECK(svp_acl_rt_destroy_stream(train));
    CHECK(svp_acl_rt_reset_device(0));
    CHECK(svp_acl_finalize());
    if (g_wrong != 0 || g_verified != frames) return 1;
    if (preemptions == 0) {
        fprintf(stderr, "expected the background job to be preempted by detect work\n");
        return 1;
    }
    printf("demo OK\n");
    return 0;
}
