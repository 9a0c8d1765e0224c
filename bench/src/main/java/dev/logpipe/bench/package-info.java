/**
 * Benchmarks, not shipped: JMH micro-benchmarks of the hot paths and whole-process benchmarks of the forwarder,
 * collector, indexer, query service and standalone against real child processes (figures in docs/benchmarks.md).
 */
package dev.logpipe.bench;
