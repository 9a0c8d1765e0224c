/**
 * Searching a plan's shards: parallel fan-out under a deadline, the k-way merge of keys, pages in two phases, stored
 * sources read within a budget.
 */
package dev.logpipe.query.internal.search;
