/**
 * HTTP plumbing of the query endpoints: JSON answers and refusals, query parameters read with 400s naming the
 * parameter.
 */
package dev.logpipe.query.internal.http;
