package kubernetes

import (
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/hookexec/hook-exec/backend"
)

// watch follows the pod until its container ended (or the pod is gone),
// through as many watches as it takes: a watch may end at any time.
func (p *startedPod) watch(rv string) {
	pods := p.b.api.pods(p.b.o.Namespace)
	sel := fields.OneTermEqualSelector("metadata.name", p.name).String()
	ranOnce := sync.OnceFunc(func() { close(p.running) })
	done := false
	report := func(e backend.Exit) {
		if !done {
			done = true
			p.exited <- e
		}
	}
	// refused: the API will not let this process follow its pod (RBAC,
	// credentials): an engine error now, not a timeout later.
	refused := func(err error) bool {
		if !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) {
			return false
		}
		err = p.b.engineErr("watch pod "+p.name, err)
		p.fail(err)
		report(backend.Exit{Err: err})
		return true
	}
	for !done && p.life.Err() == nil {
		if rv == "" {
			// Going on from now: what happened since the last event (the
			// pod's end, its deletion) is read first, or no event says it.
			got := &corev1.Pod{}
			err := pods.get(p.life, p.name, got)
			switch {
			case err == nil:
				rv = got.ResourceVersion
				p.observe(got, ranOnce, report)
				continue
			case apierrors.IsNotFound(err):
				p.gone(ranOnce, report)
				continue
			case refused(err) || p.life.Err() != nil:
				return
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		w, err := pods.watch(p.life, metav1.ListOptions{FieldSelector: sel, ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			if refused(err) || p.life.Err() != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for ev := range w.ResultChan() {
			switch ev.Type {
			case watch.Error:
				// Most often "too old a resource version": go on from now.
				rv = ""
				w.Stop()
			case watch.Deleted:
				p.gone(ranOnce, report)
			case watch.Added, watch.Modified, watch.Bookmark:
				pod, ok := ev.Object.(*corev1.Pod)
				if !ok {
					continue
				}
				rv = pod.ResourceVersion
				if ev.Type != watch.Bookmark {
					p.observe(pod, ranOnce, report)
				}
			}
			if done {
				break
			}
		}
		w.Stop()
	}
}

// observe takes one state of the pod.
func (p *startedPod) observe(pod *corev1.Pod, ran func(), report func(backend.Exit)) {
	var st *corev1.ContainerStatus
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == containerName {
			st = &pod.Status.ContainerStatuses[i]
		}
	}
	switch {
	case st != nil && st.State.Terminated != nil:
		t := st.State.Terminated
		if (t.Reason == "StartError" || t.Reason == "ContainerCannotRun") && p.fail(fmt.Errorf("%w: %s", backend.ErrStart, t.Message)) {
			return
		}
		if pod.Status.Reason == "DeadlineExceeded" {
			// The backstop ended it: hook-exec did not (its kill, or a
			// pooled pod idle past warmDeadline). Not the hook's own exit.
			ran()
			report(backend.Exit{Err: fmt.Errorf("%w: pod %s reached its activeDeadlineSeconds: %s", backend.ErrEngine, p.name, pod.Status.Message)})
			return
		}
		p.mu.Lock()
		p.oom = t.Reason == "OOMKilled"
		p.mu.Unlock()
		ran()
		report(backend.Exit{Code: int(t.ExitCode)})
	case st != nil && st.State.Running != nil:
		ran()
	case st != nil && st.State.Waiting != nil:
		w := st.State.Waiting
		switch w.Reason {
		case "ErrImageNeverPull", "ErrImagePull", "ImagePullBackOff", "InvalidImageName":
			p.fail(fmt.Errorf("%w: %q on %s: %s: %s", backend.ErrImageNotFound, pod.Spec.Containers[0].Image, p.b.cfg.Host, w.Reason, w.Message))
		case "CreateContainerConfigError", "CreateContainerError", "RunContainerError":
			p.fail(fmt.Errorf("%w: %s: %s", backend.ErrStart, w.Reason, w.Message))
		}
	case pod.Status.Phase == corev1.PodFailed:
		p.fail(fmt.Errorf("%w: pod %s failed before its container ran: %s: %s", backend.ErrEngine, p.name, pod.Status.Reason, pod.Status.Message))
	}
}

// gone: the pod was deleted. After hook-exec's kill that is the exit.
func (p *startedPod) gone(ran func(), report func(backend.Exit)) {
	p.mu.Lock()
	killed := p.killed
	p.mu.Unlock()
	p.fail(fmt.Errorf("%w: pod %s was deleted before its container ran", backend.ErrEngine, p.name))
	if killed {
		report(backend.Exit{Code: backend.KilledExitCode})
		return
	}
	report(backend.Exit{Err: fmt.Errorf("%w: pod %s was deleted by someone else", backend.ErrEngine, p.name)})
}

// fail records why the pod cannot start, once, and says whether it did; a
// pod that already ran keeps its exit as the answer.
func (p *startedPod) fail(err error) bool {
	select {
	case <-p.running:
		return false
	case <-p.failed:
		return false
	default:
	}
	p.startErr = err
	close(p.failed)
	return true
}
