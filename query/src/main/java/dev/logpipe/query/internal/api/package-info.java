/**
 * The query endpoints (search, dead letters, histogram, fields, top, context, status) and what each request carries:
 * tenant, parameters, deadline, memory lease.
 */
package dev.logpipe.query.internal.api;
