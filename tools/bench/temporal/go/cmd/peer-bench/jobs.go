package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/grpc"
)

// Input is every job's input, the same JSON as Runplane's benchmark jobs ({"prompt":"benchmark","n":1}).
type Input struct {
	Prompt string `json:"prompt"`
	N      int    `json:"n"`
}

var input = Input{Prompt: "benchmark", N: 1}

// retried counts handler runs after the first of a job: activities the server timed out because it lost a completion.
var retried atomic.Int64

// arrivals, when set, hears each time a handler starts (the latency probe waits on it).
var arrivals atomic.Pointer[chan struct{}]

func arrived() {
	if ch := arrivals.Load(); ch != nil {
		select {
		case *ch <- struct{}{}:
		default:
		}
	}
}

// Handle is the job's handler, run as an activity: it answers its input, as Runplane's bench workers do.
func Handle(ctx context.Context, in Input) (Input, error) {
	if activity.GetInfo(ctx).Attempt > 1 {
		retried.Add(1)
	}
	arrived()
	return in, nil
}

// activityTimeout bounds one run of the handler. An overloaded dev server can fail to record a completion (its
// persistence call times out); the activity then runs again after this long, as a lost workflow task is retried after
// Temporal's default workflow task timeout, which it equals.
const activityTimeout = 10 * time.Second

// JobWorkflow is one job: a workflow whose only step is the Handle activity.
func JobWorkflow(ctx workflow.Context, in Input) (Input, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: activityTimeout})
	var out Input
	err := workflow.ExecuteActivity(ctx, Handle, in).Get(ctx, &out)
	return out, err
}

// WorkflowOnly is Temporal's cheapest unit of work: the workflow task itself is the handler, no activity.
func WorkflowOnly(ctx workflow.Context, in Input) (Input, error) {
	if !workflow.IsReplaying(ctx) {
		arrived()
	}
	return in, nil
}

func workflowFor(unit string) (any, error) {
	switch unit {
	case "activity":
		return JobWorkflow, nil
	case "workflow":
		return WorkflowOnly, nil
	}
	return nil, fmt.Errorf("unknown unit %q", unit)
}

func taskQueue(name string) string {
	return fmt.Sprintf("bench-%s-%d-%d", name, os.Getpid(), time.Now().UnixNano())
}

func startOptions(queue string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{TaskQueue: queue}
}

func dial(cfg config, opts ...grpc.DialOption) (client.Client, error) {
	return client.Dial(client.Options{
		HostPort:          cfg.address,
		Namespace:         cfg.namespace,
		Logger:            sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		ConnectionOptions: client.ConnectionOptions{DialOptions: opts},
	})
}

// dialMany opens n clients, each on its own connection, as each Runplane client or worker holds its own.
func dialMany(cfg config, n int, opts ...grpc.DialOption) ([]client.Client, error) {
	clients := make([]client.Client, 0, n)
	for range n {
		c, err := dial(cfg, opts...)
		if err != nil {
			closeAll(clients)
			return nil, err
		}
		clients = append(clients, c)
	}
	return clients, nil
}

func closeAll(clients []client.Client) {
	for _, c := range clients {
		c.Close()
	}
}

// waitReady dials until the server answers for the namespace.
func waitReady(cfg config, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := dial(cfg)
		if err == nil {
			_, err = c.WorkflowService().DescribeNamespace(context.Background(),
				&workflowservice.DescribeNamespaceRequest{Namespace: cfg.namespace})
			c.Close()
		}
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// countCompletions counts the workflow completions the server accepted: a RespondWorkflowTaskCompleted that carries a
// CompleteWorkflowExecution command and succeeded is a job recorded as done, as a job-done is for Runplane.
func countCompletions(completed *atomic.Int64) grpc.DialOption {
	return grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any,
		cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoker(ctx, method, req, reply, cc, opts...)
		if done, ok := req.(*workflowservice.RespondWorkflowTaskCompletedRequest); ok && err == nil {
			for _, command := range done.GetCommands() {
				if command.GetCommandType() == enumspb.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION {
					completed.Add(1)
				}
			}
		}
		return err
	})
}

// startWorkers starts one worker per client on queue: each runs one job at a time (one activity slot, the SDK's
// minimum of two workflow-task slots and pollers) and long-polls the queue as a Runplane worker long-polls job-take.
func startWorkers(clients []client.Client, queue string) ([]worker.Worker, error) {
	workers := make([]worker.Worker, 0, len(clients))
	for _, c := range clients {
		w := worker.New(c, queue, worker.Options{
			MaxConcurrentActivityExecutionSize:     1,
			MaxConcurrentActivityTaskPollers:       1,
			MaxConcurrentWorkflowTaskExecutionSize: 2,
			MaxConcurrentWorkflowTaskPollers:       2,
		})
		w.RegisterWorkflow(JobWorkflow)
		w.RegisterWorkflow(WorkflowOnly)
		w.RegisterActivity(Handle)
		if err := w.Start(); err != nil {
			stopAll(workers)
			return nil, err
		}
		workers = append(workers, w)
	}
	return workers, nil
}

func stopAll(workers []worker.Worker) {
	for _, w := range workers {
		w.Stop()
	}
}
