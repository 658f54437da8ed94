"""The key-wise three-way merge of node files, as git's merge driver."""
