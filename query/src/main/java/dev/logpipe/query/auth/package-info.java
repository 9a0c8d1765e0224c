/** Who a query request is: the tenant resolved from the presented API key, never from the request. */
package dev.logpipe.query.auth;
