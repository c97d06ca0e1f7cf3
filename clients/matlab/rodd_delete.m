function rodd_delete(c, id)
%RODD_DELETE  Deletes a session (and its recording).
  rodd_request(c, 'DELETE', ['/v1/sessions/' id]);
end
