/**
 * How far each partition has come through the lifecycle stages (durable, read, indexed, queryable), for the status API
 * and the standalone.
 */
package dev.logpipe.indexer.stage;
