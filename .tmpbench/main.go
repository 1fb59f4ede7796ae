package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/shushlist/shush/server/store/dbcopy"
	"github.com/shushlist/shush/server/store/postgres"
)

func main() {
	ctx := context.Background()
	src := dbcopy.Endpoint{DSN: os.Args[1]}
	pg := dbcopy.Endpoint{DSN: os.Args[2], Postgres: true}
	st, err := postgres.Open(ctx, pg.DSN)
	if err != nil {
		panic(err)
	}
	st.Close()
	t := time.Now()
	if _, err := dbcopy.Sums(ctx, src); err != nil {
		panic(err)
	}
	fmt.Println("sums sqlite", time.Since(t))
	f, _ := os.Create("/tmp/lists/copy.prof")
	pprof.StartCPUProfile(f)
	t = time.Now()
	prev := ""
	_, err = dbcopy.Copy(ctx, src, pg, dbcopy.Options{Force: true, Progress: func(tb string, n int64) {
		if tb != prev {
			fmt.Println(time.Since(t).Round(time.Millisecond), "start", tb)
			prev = tb
		}
	}})
	fmt.Println("copy", time.Since(t), err)
	pprof.StopCPUProfile()
	t = time.Now()
	if _, err := dbcopy.Sums(ctx, pg); err != nil {
		panic(err)
	}
	fmt.Println("sums pg", time.Since(t))
}
