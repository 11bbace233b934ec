// Command peer-bench drives Temporal's development server the way Runplane's job benchmark drives the job-router:
// submitters that start jobs, workers that long-poll the task queue and complete them, and a latency probe from a
// submission to the worker's handler. Each run prints one JSON object on stdout.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// buildID is stamped at link time with a hash of this module's sources, so the cached binary can be checked.
var buildID = "dev"

type config struct {
	address     string
	namespace   string
	mode        string
	unit        string
	connections int
	workers     int
	jobs        int
	samples     int
	duration    time.Duration
	readyWithin time.Duration
	serverPid   int
}

// result is what one run prints: throughput or latency of the measured phase and the CPU this process spent in it.
type result struct {
	Mode      string  `json:"mode"`
	Unit      string  `json:"unit"`
	Count     int     `json:"count"`
	PerSecond float64 `json:"perSecond"`
	P50       float64 `json:"p50"`
	P99       float64 `json:"p99"`
	CPUMs     float64 `json:"cpuMs"`
	// Retried is how many handler runs were retries (completions the server lost, recovered by a timeout).
	Retried int64 `json:"retried"`
	// ServerCPUMs is the CPU the server process (-server-pid) spent in the same phase.
	ServerCPUMs float64 `json:"serverCpuMs"`
}

func parseFlags() (config, bool) {
	var cfg config
	version := flag.Bool("version", false, "print the build id and exit")
	flag.StringVar(&cfg.address, "address", "127.0.0.1:7233", "the server's frontend gRPC address")
	flag.StringVar(&cfg.namespace, "namespace", "default", "the namespace to run in")
	flag.StringVar(&cfg.mode, "mode", "submit", "ready (only wait for the server) | submit | e2e | latency")
	flag.StringVar(&cfg.unit, "unit", "activity", "activity (a workflow running one activity) | workflow (a workflow alone)")
	flag.IntVar(&cfg.connections, "connections", 20, "concurrent submitters, each with its own client connection")
	flag.IntVar(&cfg.workers, "workers", 50, "workers (e2e), each with its own client connection")
	flag.IntVar(&cfg.jobs, "jobs", 5000, "jobs submitted and completed (e2e)")
	flag.IntVar(&cfg.samples, "samples", 300, "latency samples")
	flag.DurationVar(&cfg.duration, "duration", 5*time.Second, "how long submitters run (submit)")
	flag.DurationVar(&cfg.readyWithin, "ready-within", time.Minute, "how long to wait for the server to answer")
	flag.IntVar(&cfg.serverPid, "server-pid", 0, "the server's process id, to report its CPU per phase")
	flag.Parse()
	return cfg, *version
}

func main() {
	cfg, version := parseFlags()
	if version {
		fmt.Println(buildID)
		return
	}
	if err := waitReady(cfg, cfg.readyWithin); err != nil {
		fail(err)
	}
	ready := func(config) (result, error) { return result{}, nil }
	run := map[string]func(config) (result, error){"ready": ready, "submit": submit, "e2e": endToEnd, "latency": latency}[cfg.mode]
	if run == nil {
		fail(fmt.Errorf("unknown mode %q", cfg.mode))
	}
	res, err := run(cfg)
	if err != nil {
		fail(err)
	}
	res.Mode, res.Unit, res.Retried = cfg.mode, cfg.unit, retried.Load()
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// cpuMs is the user and system CPU this process has spent, in milliseconds.
func cpuMs() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e6
}

// processCPUMs is utime + stime of process pid in milliseconds (Linux /proc), 0 when unknown.
func processCPUMs(pid int) float64 {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if pid == 0 || err != nil {
		return 0
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	// Fields 14 and 15 of /proc/<pid>/stat (utime, stime, in clock ticks of 1/100 s), counted after the name.
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) * 10
}

// meter is the CPU of this process and of the server at the start of a measured phase.
type meter struct {
	pid         int
	own, server float64
}

func startMeter(cfg config) meter { return meter{cfg.serverPid, cpuMs(), processCPUMs(cfg.serverPid)} }

// stop writes the CPU each process spent since the meter started into res.
func (m meter) stop(res *result) {
	res.CPUMs, res.ServerCPUMs = cpuMs()-m.own, processCPUMs(m.pid)-m.server
}

// percentile is the value at quantile p of ascending sorted samples (0 when empty), as the TypeScript benches pick it.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

func latencyResult(samples []float64) result {
	sort.Float64s(samples)
	return result{Count: len(samples), P50: percentile(samples, 0.5), P99: percentile(samples, 0.99)}
}

func millis(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
