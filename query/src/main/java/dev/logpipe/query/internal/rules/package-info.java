/** Alert rules on LogQL metric expressions: rule groups per tenant, evaluated on schedule, sent to Alertmanager or a webhook. */
package dev.logpipe.query.internal.rules;
