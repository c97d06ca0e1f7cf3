function [status, raw] = curl_request(c, method, url, body, accept)
%CURL_REQUEST  One request through a curl process, the body and the answer in temporary files
%   (GNU Octave's fallback: https:// URLs, no instrument-control package).
  args = {'-sS', '-X', method, '-H', ['Accept: ' accept], '--max-time', num2str(c.timeout)};
  if ~isempty(c.token)
    args = [args, {'-H', ['Authorization: Bearer ' c.token]}];
  end
  bodyfile = '';
  if ~isempty(body)
    bodyfile = [tempname() '.json'];
    f = fopen(bodyfile, 'w');
    fwrite(f, body);
    fclose(f);
    args = [args, {'-H', 'Content-Type: application/json', '--data-binary', ['@' bodyfile]}];
  end
  outfile = tempname();
  args = [args, {'-o', outfile, '-w', '%{http_code}', url}];
  quoted = cellfun(@(a) ['''' strrep(a, '''', '''\''''') ''''], args, 'UniformOutput', false);
  [rc, code] = system(['curl ' strjoin(quoted, ' ')]);
  if ~isempty(bodyfile)
    delete(bodyfile);
  end
  raw = uint8([]);
  if exist(outfile, 'file')
    f = fopen(outfile, 'r');
    raw = fread(f, Inf, 'uint8=>uint8')';
    fclose(f);
    delete(outfile);
  end
  if rc ~= 0
    error('rodd:connection', 'cannot reach %s: %s', url, strtrim(code));
  end
  status = str2double(code);
end
