/* A vendor-style C program linked against libsvp_acl.so: init, device, stream, a
 * callback on a subscribed thread, an event, teardown. Exits non-zero on any failure. */
#include <pthread.h>
#include <stdio.h>

#include "acl/svp_acl.h"
#include "acl/svp_acl_ext.h"

#define CHECK(call)                                                                   \
    do {                                                                              \
        svp_acl_error rc_ = (call);                                                   \
        if (rc_ != SVP_ACL_SUCCESS) {                                                 \
            fprintf(stderr, "%s failed: %d (%s)\n", #call, rc_, svp_acl_get_recent_err_msg()); \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

static pthread_mutex_t g_exit_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_exit = 0;
static int g_callbacks = 0;

static int should_exit(void) {
    int v;
    pthread_mutex_lock(&g_exit_mu);
    v = g_exit;
    pthread_mutex_unlock(&g_exit_mu);
    return v;
}

static void *report_thread(void *arg) {
    (void)arg;
    while (!should_exit()) (void)svp_acl_rt_process_report(10);
    return NULL;
}

static void on_done(void *user_data) { *(int *)user_data += 1; }

static svp_acl_error segment(void *user_data, uint32_t index) {
    (void)index;
    *(int *)user_data += 1;
    return SVP_ACL_SUCCESS;
}

int main(void) {
    svp_acl_rt_stream stream = NULL;
    svp_acl_rt_event event = NULL;
    svp_acl_rt_run_mode mode;
    pthread_t tid;
    int segments_run = 0;
    CHECK(svp_acl_init(NULL));
    CHECK(svp_acl_rt_set_device(0));
    CHECK(svp_acl_rt_get_run_mode(&mode));
    if (mode != SVP_ACL_DEVICE) return 1;
    CHECK(svp_acl_rt_create_stream(&stream));
    CHECK(svp_acl_rt_create_event(&event));
    pthread_create(&tid, NULL, report_thread, NULL);
    CHECK(svp_acl_rt_subscribe_report((uint64_t)tid, stream));
    CHECK(svp_acl_ext_launch_segmented_task(segment, &segments_run, 3, NULL, stream));
    CHECK(svp_acl_rt_launch_callback(on_done, &g_callbacks, SVP_ACL_CALLBACK_BLOCK, stream));
    CHECK(svp_acl_rt_record_event(event, stream));
    CHECK(svp_acl_rt_synchronize_event(event));
    CHECK(svp_acl_rt_synchronize_stream(stream));
    CHECK(svp_acl_rt_unsubscribe_report((uint64_t)tid, stream));
    pthread_mutex_lock(&g_exit_mu);
    g_exit = 1;
    pthread_mutex_unlock(&g_exit_mu);
    pthread_join(tid, NULL);
    CHECK(svp_acl_rt_destroy_event(event));
    CHECK(svp_acl_rt_destroy_stream(stream));
    CHECK(svp_acl_rt_reset_device(0));
    CHECK(svp_acl_finalize());
    if (segments_run != 3 || g_callbacks != 1) {
        fprintf(stderr, "expected 3 segments and 1 callback, got %d and %d\n", segments_run, g_callbacks);
        return 1;
    }
    printf("shared library smoke: ok\n");
    return 0;
}
