-- Webhook catch-up (issue 42): every delivery attempt reads its endpoint's older pending
-- deliveries (OlderPendingWebhookDeliveries), so those are indexed apart from the history.
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending ON webhook_deliveries (endpoint_id, id) WHERE status = 'pending';
