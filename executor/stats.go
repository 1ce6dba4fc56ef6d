package executor

// Stats are what an executor keeps ahead of its runs, read for metrics.
type Stats struct {
	// Pools is one entry per shape of sandbox kept started ahead.
	Pools []PoolStats
	// ReusedIdle counts the reused sandboxes idle now; ReuseRetired those
	// retired so far (a doubt, a failure, their runs or age, the close).
	ReusedIdle   int
	ReuseRetired uint64
	// ReusedResetting counts reused sandboxes being reset after a run;
	// Running the runs in flight now.
	ReusedResetting, Running int
	// CircuitsOpened counts the circuits opened so far: a hook that failed
	// CircuitThreshold times in a row in a session; CircuitsOpen those open
	// now, where the ledger can count them.
	CircuitsOpened uint64
	CircuitsOpen   int
}

// PoolStats is one pooled shape: its image, the sandboxes ready now and
// kept ready, and the runs so far that found none ready.
type PoolStats struct {
	Image         string
	Ready, Target int
	Misses        uint64
	// Warmed: a sandbox of it has been ready since the executor started.
	Warmed bool
}

// Stats reads the executor's pools and reused sandboxes now.
func (e *Executor) Stats() Stats {
	var s Stats
	if e.pool != nil {
		s.Pools = e.pool.stats()
	}
	if e.reuse != nil {
		s.ReusedIdle, s.ReusedResetting = e.reuse.idle()
		s.ReuseRetired = e.reuse.retired.Load()
	}
	s.Running = len(e.global)
	s.CircuitsOpened = e.circuitsOpened.Load()
	if c, ok := e.ledger.(OpenCounter); ok {
		s.CircuitsOpen = c.OpenCircuits()
	}
	return s
}
