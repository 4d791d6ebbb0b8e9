"""The database: models, engines and migrations, the ledger, accounts, the store and recall."""
