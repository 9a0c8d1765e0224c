/**
 * The whole pipeline in one JVM: embedded broker, collector, indexer and query service wired from one config,
 * first-start keys and warm-up.
 */
package dev.logpipe.server.standalone;
