/**
 * Secret redaction before a record is durable anywhere: built-in rules, card numbers, secret names and {@code
 * name=value} pairs, with a cheap trigger scan first.
 */
package dev.logpipe.collector.internal.redact;
