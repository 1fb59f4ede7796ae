package batch

import (
	"context"
	"sync"
)

// pool hands items, in order, to workers that run work on them; it stops
// handing out once stop says so or ctx is done, and returns when every
// item handed out is done. A run's batches and Lookup share it.
func pool(ctx context.Context, workers int, items []int, stop func() bool, work func(int)) {
	newPool(work).run(ctx, workers, items, stop)
}

// workPool is a pool whose work may add workers while it runs.
type workPool struct {
	next chan int
	wg   sync.WaitGroup
	work func(int)
}

func newPool(work func(int)) *workPool {
	return &workPool{next: make(chan int), work: work}
}

// grow adds n workers; it is called by the work of a running pool (so that
// the pool cannot have ended meanwhile).
func (p *workPool) grow(n int) {
	for range max(n, 0) {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for i := range p.next {
				p.work(i)
			}
		}()
	}
}

func (p *workPool) run(ctx context.Context, workers int, items []int, stop func() bool) {
	p.grow(max(workers, 1))
feed:
	for _, i := range items {
		if stop() {
			break
		}
		select {
		case p.next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(p.next)
	p.wg.Wait()
}
