/** Fair admission of queries to a fixed number of running slots, tenants taken in turn. */
package dev.logpipe.query.internal.admission;
