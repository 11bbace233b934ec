package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// submit starts jobs from cfg.connections closed loops for cfg.duration, with no worker polling: the figure is what
// accepting a job costs, as Runplane's /run accept bench leaves its jobs queued.
func submit(cfg config) (result, error) {
	clients, err := dialMany(cfg, cfg.connections)
	if err != nil {
		return result{}, err
	}
	defer closeAll(clients)
	opts := startOptions(taskQueue("submit"))
	perClient := make([][]float64, len(clients))
	errs := make([]error, len(clients))
	deadline := time.Now().Add(cfg.duration)
	cpu, start := startMeter(cfg), time.Now()
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			for time.Now().Before(deadline) && errs[i] == nil {
				began := time.Now()
				_, errs[i] = c.ExecuteWorkflow(context.Background(), opts, JobWorkflow, input)
				perClient[i] = append(perClient[i], millis(time.Since(began)))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []float64
	for i := range clients {
		if errs[i] != nil {
			return result{}, errs[i]
		}
		all = append(all, perClient[i]...)
	}
	res := latencyResult(all)
	res.PerSecond = float64(len(all)) / elapsed.Seconds()
	cpu.stop(&res)
	return res, nil
}

// submitAll starts total jobs from len(clients) loops, one per client.
func submitAll(clients []client.Client, total int, opts client.StartWorkflowOptions, job any) error {
	var next atomic.Int64
	errs := make(chan error, len(clients))
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			for next.Add(1) <= int64(total) {
				if _, err := c.ExecuteWorkflow(context.Background(), opts, job, input); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// endToEnd submits cfg.jobs jobs from cfg.connections loops while cfg.workers workers complete them: jobs per second
// from the first submission to the server accepting the last completion.
func endToEnd(cfg config) (result, error) {
	job, err := workflowFor(cfg.unit)
	if err != nil {
		return result{}, err
	}
	var completed atomic.Int64
	workerClients, err := dialMany(cfg, cfg.workers, countCompletions(&completed))
	if err != nil {
		return result{}, err
	}
	defer closeAll(workerClients)
	queue := taskQueue("e2e")
	workers, err := startWorkers(workerClients, queue)
	if err != nil {
		return result{}, err
	}
	defer stopAll(workers)
	submitters, err := dialMany(cfg, cfg.connections)
	if err != nil {
		return result{}, err
	}
	defer closeAll(submitters)
	cpu, start := startMeter(cfg), time.Now()
	if err := submitAll(submitters, cfg.jobs, startOptions(queue), job); err != nil {
		return result{}, err
	}
	if err := waitCompleted(submitters[0], queue, int64(cfg.jobs), &completed); err != nil {
		return result{}, err
	}
	res := result{Count: cfg.jobs, PerSecond: float64(cfg.jobs) / time.Since(start).Seconds()}
	cpu.stop(&res)
	return res, nil
}

// park lets the idle worker settle in its long-poll before each sample, so a sample measures a wake-up.
const park = 10 * time.Millisecond

// latency measures cfg.samples times, one job at a time, from the start of a submission to the idle worker's handler
// being called (the activity, or the workflow itself for unit=workflow), then waits for the job to complete.
func latency(cfg config) (result, error) {
	job, err := workflowFor(cfg.unit)
	if err != nil {
		return result{}, err
	}
	clients, err := dialMany(cfg, 2)
	if err != nil {
		return result{}, err
	}
	defer closeAll(clients)
	queue := taskQueue("latency")
	workers, err := startWorkers(clients[:1], queue)
	if err != nil {
		return result{}, err
	}
	defer stopAll(workers)
	ch := make(chan struct{}, 1)
	arrivals.Store(&ch)
	samples := make([]float64, 0, cfg.samples)
	cpu := startMeter(cfg)
	for range cfg.samples {
		time.Sleep(park)
		select { // a late arrival of the previous job (a retried handler) is not this sample's
		case <-ch:
		default:
		}
		began := time.Now()
		run, err := clients[1].ExecuteWorkflow(context.Background(), startOptions(queue), job, input)
		if err != nil {
			return result{}, err
		}
		<-ch
		samples = append(samples, millis(time.Since(began)))
		if err := run.Get(context.Background(), nil); err != nil {
			return result{}, err
		}
	}
	res := latencyResult(samples)
	cpu.stop(&res)
	return res, nil
}

// waitCompleted waits until total jobs of queue are completed. The count is the workers' accepted completions; when it
// stalls for a second, the server's own count answers too, in case a completion was recorded but answered an error.
func waitCompleted(c client.Client, queue string, total int64, completed *atomic.Int64) error {
	start, last, lastChange := time.Now(), int64(-1), time.Now()
	query := fmt.Sprintf("TaskQueue = '%s' AND ExecutionStatus = 'Completed'", queue)
	for completed.Load() < total {
		if n := completed.Load(); n != last {
			last, lastChange = n, time.Now()
		} else if time.Since(lastChange) > time.Second {
			count, err := c.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{Query: query})
			if err == nil && count.GetCount() >= total {
				return nil
			}
			lastChange = time.Now()
		}
		if time.Since(start) > 30*time.Minute {
			return fmt.Errorf("%d of %d jobs completed in 30 minutes", completed.Load(), total)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}
